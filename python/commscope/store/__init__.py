"""The SQLite result store: connection, migrations, saving and loading runs."""
