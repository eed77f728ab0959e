package hookclient

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/permopa/permopa/adapter/hookproto"
	"github.com/permopa/permopa/internal/decisionlog"
)

// Served is what the hook server needs to answer a call in this slow
// path's place (docs/hosts.md, "The hook server"): the thin client sends
// the command line and the few variables that say how to reach a server,
// and the hook server runs this same code on them, deciding in process
// where this process would run permopa-hook-local or ask the hook server.
type Served struct {
	// Getenv is the hook's environment: PERMOPA_SERVER,
	// PERMOPA_SERVER_REQUIRED, PERMOPA_SERVER_TOKEN_FILE and
	// PERMOPA_HOOK_SERVER as the hook has them, the rest the hook server's,
	// whose decision environment is the hook's (hookwire.DecisionEnv).
	Getenv func(string) string
	// DefaultServer is hookproto.DefaultServer as the hook found it.
	DefaultServer string
	// Socket is the hook server's socket, for --trace's note.
	Socket string
	// Deadline is the hook's: its start and --timeout (zero: from now).
	Deadline time.Time
	// OpenLog opens --log: the file the hook opened and sent.
	OpenLog func(path string, opts decisionlog.WriterOptions) (*decisionlog.Writer, error)
	// Local answers payload as `permopa-hook-local <args>` (host first)
	// would with no server, in process: its stdout, stderr (as written,
	// newline and all) and exit status.
	Local func(ctx context.Context, args []string, payload []byte) hookproto.Answer
}

// Serve answers one call as `permopa-hook-local --hook-client <args>`
// answers payload, for the hook server; it returns the exit status.
func Serve(args []string, payload []byte, stdout, stderr io.Writer, s *Served) int {
	return run(args, &callIO{stdin: bytes.NewReader(payload), stdout: stdout, stderr: stderr, getenv: s.Getenv, served: s})
}

// ServedArgs reads a command line the hook server answers with Serve and
// returns its --log ("" none): an error for one the slow path would not
// take, or would run another binary for (--permopa).
func ServedArgs(args []string) (string, error) {
	c, err := parseArgs(args)
	if err == nil && c.permopa != "" {
		err = errors.New("--permopa names a decider of its own")
	}
	return c.logFile, err
}

// servedAuto answers, in the hook server, a call that this slow path
// would send to the hook server (hookServerFirst): no server configured,
// none required. The command line it would send (localArgs) with the time
// left to the hook's deadline, so that the answer is the hook server's
// block when the decision takes longer.
func (c config) servedAuto() int {
	start := time.Now()
	payload, err := io.ReadAll(c.io.stdin)
	timeout := c.timeout
	if timeout <= 0 {
		timeout = hookproto.DefaultTimeout
	}
	deadline := c.io.served.Deadline
	if deadline.IsZero() {
		deadline = start.Add(timeout)
	}
	left := time.Until(deadline) - 100*time.Millisecond
	if err != nil || left <= 0 {
		return hookproto.For(c.host).Fail("", fmt.Sprintf("no decision within %s (%v)", timeout, context.DeadlineExceeded)).Write(c.io.stdout, c.io.stderr)
	}
	ans := c.servedLocal(payload, left)
	if c.trace {
		ans.Stderr = joinLines(ans.Stderr, fmt.Sprintf("permopa-hook: answered by the hook server, pid %d, %s (%.2f ms)", os.Getpid(), c.io.served.Socket, float64(time.Since(start).Microseconds())/1000))
	}
	return ans.Write(c.io.stdout, c.io.stderr)
}

// servedLocal is the hook server's answer to payload as askHookServer
// would have it, deciding with at most left (0: the decider's default).
func (c config) servedLocal(payload []byte, left time.Duration) hookproto.Answer {
	ans := c.io.served.Local(context.Background(), c.localArgs(true, left), payload)
	ans.Stderr = strings.TrimRight(ans.Stderr, "\n")
	return ans
}
