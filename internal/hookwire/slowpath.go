package hookwire

import "time"

// DefaultTimeout bounds a hook's whole answer: reading stdin, deciding (a
// policy compile or a server's answer) and answering.
const DefaultTimeout = 5 * time.Second

// DefaultServerTimeout bounds one server answer.
const DefaultServerTimeout = 2 * time.Second

// The slow path (adapter/hookclient): permopa-hook execs
// `permopa-hook-local SlowPathArg <its arguments>` (or `permopa
// SlowPathArg …`) for whatever it does not answer itself. When it asked
// the hook server and got no answer, it gives the payload it read on
// stdin, the time left (--timeout) and TriedFlag with why; a why that
// starts with TriedUnreachable says that nothing listened, so that the slow
// path starts a server for the next calls.
const (
	SlowPathArg      = "--hook-client"
	TriedFlag        = "--hook-server-tried"
	TriedUnreachable = "unreachable: "
)
