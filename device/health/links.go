package health

import (
	"fmt"
	"time"

	"github.com/harkbox/hark/device/control"
	"github.com/harkbox/hark/reply/center"
	"github.com/harkbox/hark/reply/llm"
)

// ServerLink is the link to a model server as one request found it: its
// version and round trip, or why it did not answer.
func ServerLink(host, version string, rtt time.Duration, err error) control.Check {
	if err != nil {
		return control.Check{Name: "model server", Detail: fmt.Sprintf("%s, unreachable: %v", host, err)}
	}
	return control.Check{Name: "model server", OK: true,
		Detail: fmt.Sprintf("%s, Ollama %s, round trip %v", host, version, rtt.Round(time.Millisecond))}
}

// ModelLink is one server of a fallback chain: answering, standing by or
// down since when.
func ModelLink(ep llm.EndpointStatus) control.Check {
	name := "model " + ep.Host
	switch {
	case ep.Up && ep.Answering:
		return control.Check{Name: name, OK: true, Detail: ep.Model + ", answering"}
	case ep.Up:
		return control.Check{Name: name, OK: true, Detail: ep.Model + ", standing by"}
	}
	return control.Check{Name: name, Detail: fmt.Sprintf("%s, down since %s: %s", ep.Model, ep.Since.Format("15:04:05"), ep.Err)}
}

// CenterLink is a node's link to its command center at url.
func CenterLink(url string, k center.Link) control.Check {
	switch {
	case k.Up && k.Checked.IsZero():
		return control.Check{Name: "center", OK: true, Detail: url + ", not asked yet"}
	case k.Up:
		return control.Check{Name: "center", OK: true, Detail: fmt.Sprintf("%s, connected, last round trip %v", url, k.RTT.Round(time.Millisecond))}
	}
	return control.Check{Name: "center", Detail: fmt.Sprintf("%s, unreachable since %s: %s", url, k.Checked.Format("15:04:05"), k.Err)}
}
