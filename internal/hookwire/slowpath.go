package hookwire

import "time"

// DefaultTimeout bounds a hook's whole answer: reading stdin, deciding (a
// policy compile or a server's answer) and answering.
const DefaultTimeout = 5 * time.Second

// DefaultServerTimeout bounds one server answer.
const DefaultServerTimeout = 2 * time.Second

// SlowPathArg: permopa-hook execs `permopa-hook-local SlowPathArg <its
// arguments>` (or `permopa SlowPathArg …`) for whatever it does not answer
// itself (adapter/hookclient).
const SlowPathArg = "--hook-client"
