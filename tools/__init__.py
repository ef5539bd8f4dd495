"""Tools for developers: things that make or check the project's files."""
