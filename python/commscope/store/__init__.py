"""The SQLite result store: db.Store, the one way in, over a module per aggregate."""
