from datetime import datetime, timedelta, timezone
from remem import DecayCalculator, DecayConfig

start = datetime(2026, 10, 1, tzinfo=timezone.utc)
calculator = DecayCalculator(DecayConfig())
for hours in (24, 72, 168):
    score = calculator.calculate_decay(1.0, start, now=start + timedelta(hours=hours))
    print(hours, round(score, 3))
