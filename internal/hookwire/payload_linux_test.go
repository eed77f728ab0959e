package hookwire

import (
	"errors"
	"os"
	"testing"
	"time"
)

// The payload is read until stdin ends, and no longer than the hook's
// time: a host that keeps stdin open gets no answer from the server path
// but a block at the deadline.
func TestReadPayload(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	w.Write([]byte(`{"cwd":`))
	start := time.Now()
	got, err := ReadPayload(int(r.Fd()), start.Add(200*time.Millisecond))
	if !errors.Is(err, os.ErrDeadlineExceeded) || string(got) != `{"cwd":` {
		t.Errorf("stdin left open: %q %v, want what was written and the deadline", got, err)
	}
	if d := time.Since(start); d < 200*time.Millisecond || d > 5*time.Second {
		t.Errorf("stdin left open: returned after %s, want the deadline (200ms)", d)
	}
	go func() {
		w.Write([]byte(`"/w"}`))
		w.Close()
	}()
	got, err = ReadPayload(int(r.Fd()), time.Now().Add(10*time.Second))
	if err != nil || string(got) != `"/w"}` {
		t.Errorf("stdin closed: %q %v", got, err)
	}
	// More than a payload may be: one byte more is read (and refused),
	// not the rest.
	r2, w2, _ := os.Pipe()
	defer r2.Close()
	go func() {
		w2.Write(make([]byte, MaxPayload+100))
		w2.Close()
	}()
	got, err = ReadPayload(int(r2.Fd()), time.Now().Add(30*time.Second))
	if err != nil || len(got) <= MaxPayload || len(got) > MaxPayload+100 {
		t.Errorf("a payload too large: %d bytes, %v; want more than %d", len(got), err, MaxPayload)
	}
	if _, err := ReadPayload(-1, time.Now().Add(time.Second)); err == nil {
		t.Error("descriptor -1 was read")
	}
}
