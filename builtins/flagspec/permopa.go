package flagspec

// permopa itself: "permopa rules add" and "permopa rules revoke" write the
// settings files of a layer, which are protected (an agent must not change
// its own rules, docs/protected-paths.md), so their write targets are the
// settings directories they may write: the project's .permopa (or that of
// --project), the user's directory (or --user-dir) and --managed-dir.
// "permopa rules export -o FILE" writes FILE.
var permopaSpec = &spec{
	subs: map[string]*spec{
		"rules": {
			allow:   `--project=r@p --managed-dir=r@m --user-dir=r@u --settings=r`,
			inherit: true,
			noSub:   "permopa rules without a subcommand is not modelled",
			subs: map[string]*spec{
				"list": {allow: `--json --files`, ops: opsNone},
				"add": {allow: `--destination= --behavior= --ttl=`, never: "permopa rules add writes permission settings",
					writer: true, ops: opsHook, check: permopaSettingsWrites},
				"revoke": {allow: `--destination= --behavior=`, never: "permopa rules revoke writes permission settings",
					writer: true, ops: opsHook, check: permopaSettingsWrites},
				"export": {allow: `--layer=`, deny: []denial{{`-o=w --output=w`, "writes the document to a file"}}, ops: opsRead},
			},
		},
	},
	noSub: "permopa without a subcommand is not modelled",
}

func permopaSettingsWrites(st *state) {
	project, ok := st.val('p')
	if !ok {
		project = "."
	}
	st.write(project + "/.permopa")
	user, ok := st.val('u')
	if !ok {
		user = "~/.config/permopa"
	}
	st.write(user)
	if m, ok := st.val('m'); ok {
		st.write(m)
	}
}

func init() {
	register(permopaSpec, "permopa")
}
