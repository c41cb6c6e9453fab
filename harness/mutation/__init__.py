"""Mutation testing of kernel sources: making single-token mutants (operators) and
checking that each kernel's verification kills them (``harness mutants``)."""
