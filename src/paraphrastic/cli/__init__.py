"""The command line: one subcommand per pipeline stage, the user-facing embed/similarity, developer tools."""
