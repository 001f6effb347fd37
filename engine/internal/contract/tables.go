package contract

// CoreTablesPath and PackTablesPath are where the exported tables live in a policy tree.
const CoreTablesPath = "handoff/core/contract/data.json"

func PackTablesPath(pack string) string { return "handoff/" + pack + "/contract/data.json" }

// PackConfigPath is where a pack's optional config value (tables that do not fit the
// #Pack schema: task graphs, routes, budgets) is exported, read as data.handoff.<pack>.config.
func PackConfigPath(pack string) string { return "handoff/" + pack + "/config/data.json" }

// ExportTables returns every table file of the bundle by its path in the policy tree,
// in the committed form, compiling every pack.
func (cc *Contracts) ExportTables() (map[string][]byte, error) {
	out := map[string][]byte{}
	core, err := TablesJSON(cc.Guardrails)
	if err != nil {
		return nil, err
	}
	out[CoreTablesPath] = core
	for _, name := range cc.names {
		p, err := cc.Pack(name)
		if err != nil {
			return nil, err
		}
		if err := p.ExportTables(out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// ExportTables adds the pack's table files to out.
func (p *Pack) ExportTables(out map[string][]byte) error {
	b, err := TablesJSON(p.Tables)
	if err != nil {
		return err
	}
	out[PackTablesPath(p.Name)] = b
	if p.Config != nil {
		c, err := TablesJSON(p.Config)
		if err != nil {
			return err
		}
		out[PackConfigPath(p.Name)] = c
	}
	return nil
}

// HasStatus says the pack's state machine has the status.
func (p *Pack) HasStatus(s string) bool {
	statuses, _ := p.Tables["workflow"].(map[string]any)["statuses"].([]any)
	for _, x := range statuses {
		if x == s {
			return true
		}
	}
	return false
}
