"""Kernel sources shipped with the harness: opencl/, wgsl/ and cuda/ (package data)."""
