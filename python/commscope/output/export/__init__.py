"""Writers of the one table shape (table.Table), a module per format: csv, json, markdown,
junit. What a table holds is decided where it is built (output.comparison,
output.run_export, output.ci); how a format writes it, here alone."""
