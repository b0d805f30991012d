"""taskscope benchmarks: `python -m bench [--quick] [name …]`; see `bench/__main__.py`."""
