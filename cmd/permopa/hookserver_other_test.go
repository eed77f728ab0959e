//go:build !linux

package main_test

// peerHelperEnv: the hook server tests run on Linux only.
const peerHelperEnv = "PERMOPA_TEST_PEER_HELPER"

func peerHelper(string) int { return 2 }
