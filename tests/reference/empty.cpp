// Keeps the reference library non-empty while operations add their files.
