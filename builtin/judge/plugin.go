package judge

import "strings"

// PluginDisabledPrefix starts the Detail of the EventPluginFailure that
// says a plugin was disabled (the plugin host's circuit breaker reports
// "disabled after 5 consecutive failures"). Such an event is not a failure
// of its own: report.pluginFailures counts the failed calls and shows the
// disabling as status "disabled".
const PluginDisabledPrefix = "disabled after "

// Statuses of report.pluginFailures[].status.
const (
	PluginStatusFailed   = "failed"
	PluginStatusDisabled = "disabled"
)

func (j *Judge) onPluginFailure(ev Event) {
	if strings.HasPrefix(ev.Detail, PluginDisabledPrefix) {
		j.pluginDisabled(ev.Plugin, ev.Detail)
		return
	}
	j.pluginFailed(ev.Plugin, ev.Detail)
}

// plugin returns the entry of the named plugin, creating it.
func (j *Judge) plugin(name string) *PluginFailure {
	if name == "" {
		name = "unnamed plugin"
	}
	if i, ok := j.pluginIdx[name]; ok {
		return j.plugins[i]
	}
	p := &PluginFailure{Plugin: name, Status: PluginStatusFailed}
	j.pluginIdx[name] = len(j.plugins)
	j.plugins = append(j.plugins, p)
	return p
}

// pluginFailed counts one failed call of a plugin; the first failure's
// detail is kept.
func (j *Judge) pluginFailed(name, detail string) {
	p := j.plugin(name)
	p.Failures++
	if p.Detail == "" {
		p.Detail = detail
	}
}

// pluginDisabled records that a plugin was disabled. It counts no failure
// (the failed calls that tripped the breaker were counted each), and the
// judge stops consulting the plugin's equivalence and pair checker: a
// disabled plugin only answers errors, which are not failed calls either.
func (j *Judge) pluginDisabled(name, detail string) {
	p := j.plugin(name)
	if p.Status != PluginStatusDisabled {
		p.Status = PluginStatusDisabled
		j.disabled++
	}
	if p.Detail == "" {
		p.Detail = detail
	}
}

// isDisabled reports whether the plugin p (an Equivalence or PairChecker)
// was disabled; fallback is its name when it has none.
func (j *Judge) isDisabled(p any, fallback string) bool {
	if j.disabled == 0 {
		return false
	}
	i, ok := j.pluginIdx[pluginName(p, fallback)]
	return ok && j.plugins[i].Status == PluginStatusDisabled
}

func pluginName(p any, fallback string) string {
	if n, ok := p.(Namer); ok {
		if s := n.Name(); s != "" {
			return s
		}
	}
	return fallback
}
