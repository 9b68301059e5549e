//! The one rayon pool the kernels share.
//!
//! Built lazily on first use (so a single small call never pays thread start-up), sized by
//! `REMEM_NUM_THREADS` when set, and switched off in a forked child: rayon's worker threads do not
//! survive `fork()`, and a child that waited on them would hang (the Python side calls
//! [`disable_after_fork`] from `os.register_at_fork`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

static FORKED: AtomicBool = AtomicBool::new(false);
static POOL: OnceLock<Option<rayon::ThreadPool>> = OnceLock::new();

/// Number of worker threads requested: `REMEM_NUM_THREADS` if it parses to ≥ 1, else the number of
/// available cores.
pub fn configured_threads() -> usize {
    std::env::var("REMEM_NUM_THREADS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&n| n >= 1)
        .unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1)
        })
}

/// Called in a forked child: from now on every kernel runs on the calling thread.
pub fn disable_after_fork() {
    FORKED.store(true, Ordering::SeqCst);
}

/// The shared pool, or `None` when parallelism is off (one thread configured, or after fork).
pub fn pool() -> Option<&'static rayon::ThreadPool> {
    if FORKED.load(Ordering::Relaxed) {
        return None;
    }
    POOL.get_or_init(|| {
        let n = configured_threads();
        if n <= 1 {
            return None;
        }
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .thread_name(|i| format!("remem-{i}"))
            .build()
            .ok()
    })
    .as_ref()
}

/// Run `f` on the pool when `work` reaches `threshold` (a benchmark-chosen size) and a pool exists;
/// otherwise run the sequential fallback `g`. Both must compute the same result.
pub fn run<T: Send>(
    work: usize,
    threshold: usize,
    f: impl FnOnce() -> T + Send,
    g: impl FnOnce() -> T,
) -> T {
    match pool() {
        Some(p) if work >= threshold => p.install(f),
        _ => g(),
    }
}
