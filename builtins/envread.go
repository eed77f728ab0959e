package builtins

import (
	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown"
	"github.com/open-policy-agent/opa/v1/topdown/builtins"
	"github.com/open-policy-agent/opa/v1/types"

	"github.com/permopa/permopa/builtins/bash"
)

// BashEnvRead is permopa.bash.env_read.
var BashEnvRead = &ast.Builtin{
	Name: "permopa.bash.env_read",
	Description: "The names among the given environment variable names that a shell or a program permopa knows may " +
		"read, in order: everything but the names no shell or modelled program gives a meaning to (the rule that " +
		"makes an assignment at the end of a command harmless; docs/shell.md, \"Shell state\"). A name that is not " +
		"a valid variable name counts as read.",
	Categories: categoriesBash,
	Decl: types.NewFunction(
		types.Args(types.Named("names", types.NewArray(nil, types.S)).Description("environment variable names")),
		types.Named("read", types.NewArray(nil, types.S)).Description("the names that may change what a command does"),
	),
}

func bashEnvRead(_ topdown.BuiltinContext, ops []*ast.Term) (*ast.Term, error) {
	a, err := builtins.ArrayOperand(ops[0].Value, 1)
	if err != nil {
		return nil, err
	}
	out := make([]*ast.Term, 0, a.Len())
	for i := range a.Len() {
		s, ok := a.Elem(i).Value.(ast.String)
		if !ok {
			return nil, builtins.NewOperandElementErr(1, a, a.Elem(i).Value, "string")
		}
		if bash.EnvNameRead(string(s)) {
			out = append(out, a.Elem(i))
		}
	}
	return ast.ArrayTerm(out...), nil
}
