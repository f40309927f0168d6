"""fastdyn's benchmarks, side by side with Pinocchio: ``python bench/report.py`` runs them all
and writes bench/RESULTS.md (see bench/README section in RESULTS.md for what each measure is)."""
