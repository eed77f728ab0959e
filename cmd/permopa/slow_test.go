//go:build slow

package main_test

// slowTests is true with -tags slow: every case of every table runs.
const slowTests = true
