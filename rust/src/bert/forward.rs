//! The forward pass of [`Encoder`]: embeddings → layers → pooling, over a CSR batch.
//!
//! Parallelism (the pool of [`crate::parallel`]): a batch of [`PAR_SEQUENCES`] tokens or more is
//! cut into one group of whole sequences per thread, of near-equal token counts, and each group
//! runs the whole forward pass on its thread — every step (GEMMs, GELU, layer norms, attention)
//! in parallel with no hand-off between steps. A smaller batch (a query) runs on the calling
//! thread, its GEMMs splitting their output panels over the pool (see [`gemm`]).

use rayon::prelude::*;

use super::{gemm, ops, pool, Encoder, Pooling};
use crate::error::KernelResult;

/// Batches with this many tokens or more split into groups of sequences, one per thread: from
/// here a row block reuses each weight panel enough for the GEMMs to be bound by arithmetic, so
/// streaming the weights once per thread costs less than synchronising every step.
pub(crate) const PAR_SEQUENCES: usize = gemm::PAR_ROWS;

impl Encoder {
    /// The `(n × hidden)` sentence vectors of a CSR batch, row-major (see the module docs).
    ///
    /// Errors: `Invalid` for empty `offsets`; `OutOfRange` for offsets that do not start at 0,
    /// do not increase strictly (an empty sequence) or do not end at `ids.len()`, a sequence
    /// longer than `max_positions`, or an id / type id outside its vocabulary; `Length` when
    /// `type_ids` is not as long as `ids`.
    pub fn encode(
        &self,
        ids: &[i64],
        offsets: &[i64],
        type_ids: Option<&[i64]>,
        pooling: Pooling,
        normalize: bool,
    ) -> KernelResult<Vec<f32>> {
        let spans = self.check_batch(ids, offsets, type_ids)?;
        let run = |group: &[(usize, usize)], par: bool| {
            let (start, end) = match (group.first(), group.last()) {
                (Some(&(s, _)), Some(&(ls, ll))) => (s, ls + ll),
                _ => (0, 0),
            };
            let local: Vec<(usize, usize)> = group.iter().map(|&(s, l)| (s - start, l)).collect();
            let types = type_ids.map(|t| &t[start..end]);
            self.forward(&ids[start..end], &local, types, pooling, normalize, par)
        };
        match crate::parallel::pool() {
            Some(pool) if ids.len() >= PAR_SEQUENCES && spans.len() >= 2 => {
                let groups = split_by_tokens(&spans, ids.len(), pool.current_num_threads());
                let parts: Vec<Vec<f32>> =
                    pool.install(|| groups.par_iter().map(|g| run(g, false)).collect());
                Ok(parts.concat())
            }
            _ => Ok(run(&spans, true)),
        }
    }

    /// Pooled vectors of `spans` (starting at 0, covering `ids`); `par` lets the GEMMs and
    /// attention use the pool.
    fn forward(
        &self,
        ids: &[i64],
        spans: &[(usize, usize)],
        type_ids: Option<&[i64]>,
        pooling: Pooling,
        normalize: bool,
        par: bool,
    ) -> Vec<f32> {
        let h = self.config.hidden;
        let m = ids.len();
        let mut x = self.embed(ids, spans, type_ids);
        let mut qkv = vec![0.0f32; m * 3 * h];
        let mut ctx = vec![0.0f32; m * h];
        let mut ff = vec![0.0f32; m * self.config.intermediate];
        let mut delta = vec![0.0f32; m * h];
        for layer in &self.layers {
            gemm::gemm(&x, m, &layer.qkv, &mut qkv, par);
            self.attention(&qkv, spans, &mut ctx, par);
            gemm::gemm(&ctx, m, &layer.attention_out, &mut delta, par);
            let (w, b) = &layer.attention_norm;
            ops::add_layer_norm(&mut x, &delta, w, b, self.config.eps);
            gemm::gemm(&x, m, &layer.intermediate, &mut ff, par);
            ops::gelu(&mut ff);
            gemm::gemm(&ff, m, &layer.output, &mut ctx, par);
            let (w, b) = &layer.output_norm;
            ops::add_layer_norm(&mut x, &ctx, w, b, self.config.eps);
        }
        pool::pool(&x, h, spans, pooling, normalize)
    }
    /// Summed embeddings of every token, layer-normed: `(Σt) × h`.
    fn embed(&self, ids: &[i64], spans: &[(usize, usize)], type_ids: Option<&[i64]>) -> Vec<f32> {
        let h = self.config.hidden;
        let mut x = vec![0.0f32; ids.len() * h];
        for &(start, len) in spans {
            for p in 0..len {
                let row = start + p;
                let out = &mut x[row * h..(row + 1) * h];
                let word = &self.word[ids[row] as usize * h..][..h];
                let pos = &self.position[p * h..][..h];
                let ty = type_ids.map_or(0, |t| t[row] as usize);
                let ty = &self.token_type[ty * h..][..h];
                for (((o, &a), &b), &c) in out.iter_mut().zip(word).zip(pos).zip(ty) {
                    *o = a + b + c;
                }
            }
        }
        let (w, b) = &self.embedding_norm;
        ops::add_layer_norm(&mut x, &[], w, b, self.config.eps);
        x
    }

    /// Attention of every sequence, over the pool for a large batch.
    fn attention(&self, qkv: &[f32], spans: &[(usize, usize)], ctx: &mut [f32], par: bool) {
        let h = self.config.hidden;
        let heads = self.config.heads;
        let one = |(start, len): (usize, usize), out: &mut [f32]| {
            let mut scores = vec![0.0f32; len];
            let q = &qkv[start * 3 * h..(start + len) * 3 * h];
            ops::attention(q, len, heads, out, &mut scores);
        };
        // Each sequence's rows of `ctx`, as disjoint slices.
        let mut parts: Vec<((usize, usize), &mut [f32])> = Vec::with_capacity(spans.len());
        let mut rest = ctx;
        for &(start, len) in spans {
            let (head, tail) = rest.split_at_mut(len * h);
            parts.push(((start, len), head));
            rest = tail;
        }
        match crate::parallel::pool() {
            Some(pool) if par && qkv.len() / (3 * h) >= PAR_SEQUENCES => {
                pool.install(|| parts.into_par_iter().for_each(|(s, out)| one(s, out)))
            }
            _ => parts.into_iter().for_each(|(s, out)| one(s, out)),
        }
    }
}

/// Cut `spans` (in order) into at most `parts` contiguous groups of near-equal token counts.
fn split_by_tokens(spans: &[(usize, usize)], total: usize, parts: usize) -> Vec<&[(usize, usize)]> {
    let per = total.div_ceil(parts.max(1));
    let mut groups = Vec::with_capacity(parts);
    let (mut first, mut tokens) = (0, 0);
    for (i, &(_, len)) in spans.iter().enumerate() {
        tokens += len;
        if tokens >= per * (groups.len() + 1) || i + 1 == spans.len() {
            groups.push(&spans[first..=i]);
            first = i + 1;
        }
    }
    groups
}
