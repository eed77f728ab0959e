package hookproto

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/permopa/permopa/internal/hookwire"
	"github.com/permopa/permopa/permission"
)

// Environment variables that point hooks at a running server.
const (
	// EnvServer is the server address, as for --server.
	EnvServer = hookwire.EnvServer
	// EnvServerRequired, when "1" or "true", makes an unreachable server
	// block instead of deciding locally.
	EnvServerRequired = hookwire.EnvServerRequired
)

// CheckPath is the server's decision endpoint (docs/api.md).
const CheckPath = "/v1/permission/check"

// DefaultServerTimeout bounds one server answer; past it the hook blocks.
const DefaultServerTimeout = hookwire.DefaultServerTimeout

// maxAnswer caps a server answer's body.
const maxAnswer = 4 << 20

// UnreachableError is a server that could not be connected to at all (no
// socket, connection refused): nothing was sent, so deciding locally
// instead is safe. Every other server fault is a plain error that blocks.
type UnreachableError struct {
	Addr string
	Err  error
	// NotAsked: the client would not send to this server (a TCP server
	// and no token to present); nothing was sent either.
	NotAsked bool
}

func (e *UnreachableError) Error() string {
	if e.NotAsked {
		return fmt.Sprintf("permopa server %s was not asked: %v", e.Addr, e.Err)
	}
	return fmt.Sprintf("permopa server %s is unreachable: %v", e.Addr, e.Err)
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// Client asks a running `permopa run --server` for decisions: HTTP/1.1 over
// a unix socket or TCP, one connection per call. It is a minimal HTTP
// client of its own, on system calls (dial_unix.go), not net/http nor net:
// those cost the small hook binary milliseconds at every start (TLS and
// HTTP/2 initialisation, and with cgo a dynamically linked libc); one POST
// with a JSON body and a JSON answer needs none of it.
type Client struct {
	addr            string
	network, target string
	host            string
	timeout         time.Duration
	// token is presented to a TCP server (Authorization: Bearer);
	// tokenErr says why there is none. A TCP server is asked only with one.
	token    string
	tokenErr error
}

// NewClient is a client for addr: unix:///path/to/permopa.sock,
// http://ip:port or http://localhost:port (no TLS and no DNS: a unix socket
// or loopback). timeout bounds each answer (0: DefaultServerTimeout). A
// TCP server is asked only with the token of DefaultTokenFile (the server
// writes it at its first start; docs/hosts.md, "Fast path"): without one
// the client sends nothing and Check returns an *UnreachableError with
// NotAsked. Prefer the socket: its file permissions say who may connect.
func NewClient(addr string, timeout time.Duration) (*Client, error) {
	return NewClientEnv(addr, timeout, os.Getenv)
}

// NewClientEnv is NewClient with the token file found through getenv (the
// hook server's: the environment of the hook it answers).
func NewClientEnv(addr string, timeout time.Duration, getenv func(string) string) (*Client, error) {
	if timeout <= 0 {
		timeout = DefaultServerTimeout
	}
	c := &Client{addr: addr, timeout: timeout}
	switch {
	case strings.HasPrefix(addr, "unix://"):
		c.network, c.target, c.host = "unix", strings.TrimPrefix(addr, "unix://"), "permopa"
		if c.target == "" {
			return nil, fmt.Errorf("server address %q: no socket path (want unix:///path/to/permopa.sock)", addr)
		}
	case strings.HasPrefix(addr, "http://"):
		hostport := strings.TrimRight(strings.TrimPrefix(addr, "http://"), "/")
		if hostport == "" || strings.Contains(hostport, "/") {
			return nil, fmt.Errorf("server address %q: want http://ip:port with no path", addr)
		}
		if !strings.Contains(strings.TrimPrefix(hostport, "["), ":") || strings.HasSuffix(hostport, "]") {
			hostport += ":80"
		}
		if _, err := parseAddrPort(hostport); err != nil {
			return nil, fmt.Errorf("server address %q: %v", addr, err)
		}
		c.network, c.target, c.host = "tcp", hostport, hostport
		c.token, c.tokenErr = ReadTokenFile(DefaultTokenFile(getenv))
	default:
		return nil, fmt.Errorf("server address %q: want unix:///path/to/permopa.sock or http://host:port", addr)
	}
	return c, nil
}

// Addr is the address the client was made for.
func (c *Client) Addr() string { return c.addr }

// SetToken sets the token presented to a TCP server (instead of the one
// of DefaultTokenFile).
func (c *Client) SetToken(tok string) { c.token, c.tokenErr = tok, nil }

// Check asks the server to decide one input (docs/api.md). The answer must
// be a decision with a known behavior; anything else (an error status, a
// body that is not a decision, no answer within the timeout) is an error.
// A server that cannot be connected to is an *UnreachableError.
func (c *Client) Check(ctx context.Context, input map[string]any) (permission.Decision, error) {
	if c.network == "tcp" && c.token == "" {
		err := c.tokenErr
		if err == nil {
			err = errors.New("no token")
		}
		return permission.Decision{}, &UnreachableError{Addr: c.addr, NotAsked: true, Err: fmt.Errorf("a TCP server is asked only with its token (%v); use its unix socket, or set %s", err, EnvServerTokenFile)}
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	body, err := json.Marshal(input)
	if err != nil {
		return permission.Decision{}, fmt.Errorf("cannot encode the call for the server: %v", err)
	}
	status, data, err := c.post(ctx, CheckPath, body)
	if err != nil {
		var unreachable *UnreachableError
		if errors.As(err, &unreachable) {
			return permission.Decision{}, unreachable
		}
		if ctx.Err() != nil || isTimeout(err) {
			return permission.Decision{}, fmt.Errorf("permopa server %s gave no answer within %s", c.addr, c.timeout)
		}
		return permission.Decision{}, fmt.Errorf("permopa server %s: %v", c.addr, err)
	}
	if status != 200 {
		var e struct{ Code, Message string }
		if json.Unmarshal(data, &e) == nil && (e.Code != "" || e.Message != "") {
			return permission.Decision{}, fmt.Errorf("permopa server %s answered status %d: %s: %s", c.addr, status, e.Code, e.Message)
		}
		return permission.Decision{}, fmt.Errorf("permopa server %s answered status %d: %.200q", c.addr, status, data)
	}
	d, err := permission.ParseDecision(data)
	if err != nil {
		return permission.Decision{}, fmt.Errorf("permopa server %s: %v", c.addr, err)
	}
	return d, nil
}

func isTimeout(err error) bool {
	return errors.Is(err, os.ErrDeadlineExceeded)
}

// untrustedError is a server address that must not be asked nor skipped:
// the hook blocks.
type untrustedError struct{ err error }

func (e *untrustedError) Error() string { return e.err.Error() }

// conn is a connection with deadlines (*os.File on unix, net.Conn elsewhere).
type conn interface {
	io.ReadWriteCloser
	SetDeadline(time.Time) error
}

// post sends one HTTP/1.1 POST on a new connection and reads the answer's
// status and body (Content-Length, chunked, or up to the connection's end).
func (c *Client) post(ctx context.Context, path string, body []byte) (int, []byte, error) {
	conn, err := dial(ctx, c.network, c.target)
	if err != nil {
		var untrusted *untrustedError
		if ctx.Err() != nil || errors.Is(err, os.ErrDeadlineExceeded) || errors.As(err, &untrusted) {
			return 0, nil, err
		}
		// Nothing was sent: deciding elsewhere is safe.
		return 0, nil, &UnreachableError{Addr: c.addr, Err: err}
	}
	defer conn.Close()
	if deadline, ok := ctx.Deadline(); ok {
		conn.SetDeadline(deadline)
	}
	// Closing the connection when ctx ends unblocks a read the deadline
	// would not (a cancelled parent context).
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	auth := ""
	if c.network == "tcp" {
		auth = "Authorization: Bearer " + c.token + "\r\n"
	}
	req := fmt.Sprintf("POST %s HTTP/1.1\r\nHost: %s\r\n%sContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n", path, c.host, auth, len(body))
	if _, err := conn.Write(append([]byte(req), body...)); err != nil {
		return 0, nil, fmt.Errorf("sending the call: %w", err)
	}
	return readResponse(bufio.NewReader(conn))
}

// readResponse reads an HTTP/1.1 response: status line, headers, body.
func readResponse(r *bufio.Reader) (int, []byte, error) {
	for {
		line, err := readLine(r)
		if err != nil {
			return 0, nil, fmt.Errorf("reading the answer: %w", err)
		}
		proto, rest, _ := strings.Cut(line, " ")
		code, _, _ := strings.Cut(rest, " ")
		status, err := strconv.Atoi(code)
		if !strings.HasPrefix(proto, "HTTP/1.") || err != nil || status < 100 || status > 999 {
			return 0, nil, fmt.Errorf("the answer is not HTTP: %.100q", line)
		}
		length, chunked := int64(-1), false
		for {
			h, err := readLine(r)
			if err != nil {
				return 0, nil, fmt.Errorf("reading the answer's headers: %w", err)
			}
			if h == "" {
				break
			}
			name, value, _ := strings.Cut(h, ":")
			value = strings.TrimSpace(value)
			switch strings.ToLower(strings.TrimSpace(name)) {
			case "content-length":
				n, err := strconv.ParseInt(value, 10, 64)
				if err != nil || n < 0 {
					return 0, nil, fmt.Errorf("the answer has Content-Length %q", value)
				}
				length = n
			case "transfer-encoding":
				chunked = strings.EqualFold(value, "chunked")
				if !chunked {
					return 0, nil, fmt.Errorf("the answer has Transfer-Encoding %q", value)
				}
			}
		}
		if status < 200 {
			continue // 1xx: the real answer follows
		}
		var body []byte
		switch {
		case chunked:
			body, err = readChunked(r)
		case length >= 0:
			if length > maxAnswer {
				return 0, nil, fmt.Errorf("answer larger than %d bytes", maxAnswer)
			}
			body = make([]byte, length)
			_, err = io.ReadFull(r, body)
		default:
			body, err = readAtMost(r, maxAnswer)
		}
		if err != nil {
			return 0, nil, fmt.Errorf("reading the answer's body: %w", err)
		}
		return status, body, nil
	}
}

func readLine(r *bufio.Reader) (string, error) {
	line, err := r.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		return "", errors.New("header line too long")
	}
	if err != nil {
		return "", err
	}
	return strings.TrimRight(string(line), "\r\n"), nil
}

func readChunked(r *bufio.Reader) ([]byte, error) {
	var body []byte
	for {
		line, err := readLine(r)
		if err != nil {
			return nil, err
		}
		size, _, _ := strings.Cut(line, ";")
		n, err := strconv.ParseInt(strings.TrimSpace(size), 16, 64)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("bad chunk size %q", line)
		}
		if n == 0 {
			for { // trailers, up to the blank line
				t, err := readLine(r)
				if err != nil || t == "" {
					return body, err
				}
			}
		}
		if int64(len(body))+n > maxAnswer {
			return nil, fmt.Errorf("answer larger than %d bytes", maxAnswer)
		}
		chunk := make([]byte, n)
		if _, err := io.ReadFull(r, chunk); err != nil {
			return nil, err
		}
		body = append(body, chunk...)
		if crlf, err := readLine(r); err != nil || crlf != "" {
			return nil, fmt.Errorf("bad chunk end")
		}
	}
}

func readAtMost(r io.Reader, max int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err == nil && int64(len(data)) > max {
		err = fmt.Errorf("answer larger than %d bytes", max)
	}
	return data, err
}

// Decide asks the server for every input of req, in order.
func (c *Client) Decide(ctx context.Context, req Request) ([]permission.Decision, error) {
	ds := make([]permission.Decision, 0, len(req.Inputs))
	for _, in := range req.Inputs {
		d, err := c.Check(ctx, in)
		if err != nil {
			return nil, err
		}
		ds = append(ds, d)
	}
	return ds, nil
}

// ServerFromEnv is the server address and whether it is required, from
// the flag values (flag "" and required false: not given) and otherwise
// PERMOPA_SERVER and PERMOPA_SERVER_REQUIRED.
func ServerFromEnv(flagAddr string, flagRequired bool, getenv func(string) string) (string, bool) {
	addr := flagAddr
	if addr == "" {
		addr = strings.TrimSpace(getenv(EnvServer))
	}
	required := flagRequired
	if !required {
		switch strings.ToLower(strings.TrimSpace(getenv(EnvServerRequired))) {
		case "1", "true", "yes", "on":
			required = true
		}
	}
	return addr, required
}

// WithMode is req with mode as the permission_mode of the calls that name
// none: what --mode means to a server, which has no --mode of its own (the
// local path puts it in the settings' default mode).
func WithMode(req Request, mode string) Request {
	if mode == "" {
		return req
	}
	out := req
	out.Inputs = make([]map[string]any, len(req.Inputs))
	for i, in := range req.Inputs {
		if m, _ := in["permission_mode"].(string); m == "" {
			in = copyPayload(in)
			in["permission_mode"] = mode
		}
		out.Inputs[i] = in
	}
	return out
}

// parseAddrPort reads ip:port or localhost:port.
func parseAddrPort(target string) (netip.AddrPort, error) {
	if ap, err := netip.ParseAddrPort(target); err == nil {
		return ap, nil
	}
	if port, ok := strings.CutPrefix(target, "localhost:"); ok {
		return netip.ParseAddrPort("127.0.0.1:" + port)
	}
	return netip.AddrPort{}, fmt.Errorf("want an IP address and port, or localhost:port")
}

// CheckListener refuses a loopback TCP listener (ip:port or
// localhost:port) that belongs to another user than this one or root,
// where the system tells (Linux); `permopa doctor` checks Claude Code's
// http hooks with it, which cannot check who answers them.
func CheckListener(hostport string) error {
	ap, err := parseAddrPort(hostport)
	if err != nil {
		return err
	}
	return checkTCPListener(ap)
}
