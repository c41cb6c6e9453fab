"""Reading run folders and telling their story: tables, reports, plots,
comparisons of two runs, and RAJAPerf's own file formats. Knows no kernel by name."""
