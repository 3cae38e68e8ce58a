"""Benchmarks: `make bench` writes bench/results.json and bench/results.md and updates the README table."""
