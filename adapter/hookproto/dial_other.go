//go:build !unix

package hookproto

import (
	"context"
	"net"
)

// dial connects with the net package where there are no unix system calls.
func dial(ctx context.Context, network, target string) (conn, error) {
	var d net.Dialer
	return d.DialContext(ctx, network, target)
}
