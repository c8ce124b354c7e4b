"""What the user sees: OSU tables for imported runs, terminal views, export, plots, reports."""
