"""Run records, their points, the metric vocabulary, suites and the result schema: the bottom layer."""
