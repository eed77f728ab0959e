//go:build slow

package main

// slowTests is true with -tags slow: every case runs.
const slowTests = true
