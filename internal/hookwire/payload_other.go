//go:build !linux

package hookwire

import "time"

// ReadPayload: the hook server, hence the path that reads the payload
// before deciding how to answer it, is Linux only.
func ReadPayload(int, time.Time) ([]byte, error) { return nil, errNoHookServer }
