package hookwire

import (
	"errors"
	"os"
	"strconv"
	"syscall"
	"time"
	"unsafe"
)

// ReadPayload reads fd (stdin) to its end, or to one byte more than
// MaxPayload, waiting for it until deadline (then os.ErrDeadlineExceeded):
// with select, not Go's poller (no goroutine, timer or epoll set-up in a
// process that reads once and exits). A read error is returned with what
// was read.
func ReadPayload(fd int, deadline time.Time) ([]byte, error) {
	buf := make([]byte, 0, 8<<10)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		left := time.Until(deadline)
		if left <= 0 {
			return buf, os.ErrDeadlineExceeded
		}
		if fd < 0 || fd >= syscall.FD_SETSIZE {
			return buf, errors.New("descriptor " + strconv.Itoa(fd) + " cannot be waited for with select")
		}
		var ready syscall.FdSet
		bits := int(unsafe.Sizeof(ready.Bits[0])) * 8
		ready.Bits[fd/bits] = 1 << (uint(fd) % uint(bits))
		tv := syscall.NsecToTimeval(max(left, time.Microsecond).Nanoseconds())
		n, err := syscall.Select(fd+1, &ready, nil, nil, &tv)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return buf, os.NewSyscallError("select", err)
		case n == 0:
			return buf, os.ErrDeadlineExceeded
		}
		n, err = syscall.Read(fd, buf[len(buf):cap(buf)])
		switch {
		case err == syscall.EINTR || err == syscall.EAGAIN:
			continue
		case err != nil:
			return buf, os.NewSyscallError("read", err)
		case n == 0:
			return buf, nil
		}
		buf = buf[:len(buf)+n]
		if len(buf) > MaxPayload {
			return buf, nil
		}
	}
}
