package flagspec

// Modelled reports whether program has a flag spec, so that its options and
// operands are read. A program without one may run its operands as a
// command (toybox rm x, ssh-agent rm x, tmux new 'rm x'): builtins/bash
// lets deny and ask rules see them (docs/shell.md, "Deny and ask rules and
// programs permopa does not model").
func Modelled(program string) bool {
	_, interp := interpreterReason[program] // inline code is read by judgeExact
	return interp || registry[program] != nil
}
