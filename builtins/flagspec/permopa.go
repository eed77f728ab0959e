package flagspec

// permopa itself: "permopa rules add" and "permopa rules revoke" write the
// settings files of a layer, which are protected (an agent must not change
// its own rules, docs/protected-paths.md), so their write targets are the
// settings directories they may write: the project's .permopa (or that of
// --project), the user's directory (or --user-dir) and --managed-dir.
// "permopa rules export -o FILE" writes FILE. "permopa trust" records in the
// user's directory which projects' settings may loosen decisions
// (docs/rules.md, "Trusted projects"): a write of that directory as well,
// whatever its flags (--list and --dry-run only read, but are no reason to
// tell the trust file's writes apart).
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
		"trust": {allow: `--user-dir=r@u --list --dry-run --revoke=`, never: "permopa trust changes which project settings are trusted",
			writer: true, ops: opsHook, check: permopaTrustWrites},
	},
	noSub: "permopa without a subcommand is not modelled",
}

func permopaTrustWrites(st *state) {
	user, ok := st.val('u')
	if !ok {
		user = "~/.config/permopa"
	}
	st.write(user)
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
