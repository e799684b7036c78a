package builtin

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/reply/command"
)

// DeviceStatus is what device_status reports.
type DeviceStatus struct {
	Version   string
	Uptime    time.Duration
	Addresses []string
	// DiskUsed and DiskTotal are bytes of the data partition.
	DiskUsed, DiskTotal uint64
	Model               string
	// ModelErr is why the model server did not answer; nil when it did.
	ModelErr error
	// Web are the web page's addresses, by name first and then by
	// address ("https://hark.local:8080", "https://192.168.1.20:8080");
	// none when the box has no page.
	Web []string
}

// StatusSource gathers the device's status; device/box provides it.
type StatusSource interface {
	Status(ctx context.Context) DeviceStatus
}

// Status is device_status.
func Status(src StatusSource) *command.Command {
	return &command.Command{
		Name:        "device_status",
		Description: "This speaker's version, uptime, IP address, storage use and model server state.",
		Keywords:    []string{"status", "ip address", "web address", "version", "storage", "uptime"},
		Parameters:  []command.Parameter{{Name: "detail", Type: "string", Enum: []string{"all", "version", "uptime", "ip", "web", "storage", "model"}, Default: "all"}},
		PreRoute: func(text string) (command.Claim, bool) {
			t := trim(text)
			for detail, phrases := range map[string][]string{
				"all": {"device status", "system status", "status report", "status", "how are you doing", "give me a status report", "diagnostics"},
				"ip":  {"what is your ip address", "what is your ip", "ip address", "what is the ip address"},
				"web": {"what is your web address", "what is the web address", "what is your website", "what is your web page", "where is your web page",
					"what is your url", "how do i open your web page", "how do i find your web page", "web address", "web page address", "how do i set you up"},
				"storage": {"how much storage is left", "how much space is left", "how much storage do you have", "how full is your storage", "disk space"},
				"version": {"what version are you", "what version are you running", "which version are you", "what is your version", "version"},
				"uptime":  {"how long have you been running", "how long have you been on", "uptime"},
				"model":   {"is the model server up", "is the model server running", "can you reach the model", "are you connected to the model"},
			} {
				if oneOf(t, phrases...) {
					return claim(map[string]any{"detail": detail})
				}
			}
			return noClaim, false
		},
		Run: func(ctx context.Context, c command.Call) (command.Response, error) {
			st := src.Status(ctx)
			data := map[string]any{
				"version": st.Version, "uptime": st.Uptime.Round(time.Second).String(), "addresses": st.Addresses,
				"disk_used_bytes": st.DiskUsed, "disk_total_bytes": st.DiskTotal, "model": st.Model, "model_ok": st.ModelErr == nil,
				"web": st.Web,
			}
			l := lang(c)
			parts := map[string]string{
				"version": l.T("I'm running Hark version %s.", st.Version),
				"uptime":  l.T("I've been running for %s.", sayUptime(l, st.Uptime)),
				"ip":      l.T("I have no network address."),
				"storage": l.T("I can't tell how much storage is left."),
				"model":   l.T("The model server answers, with %s.", st.Model),
			}
			if len(st.Addresses) > 0 {
				parts["ip"] = l.T("My IP address is %s.", l.And(st.Addresses))
			}
			// An address is said without its scheme: a browser finds the
			// page from NAME.local:8080, and the reply's speech would call
			// a whole URL "a link".
			parts["web"] = l.T("I have no web page.")
			switch page := bare(byAddress(st.Web)); {
			case len(st.Web) == 1:
				parts["web"] = l.T("Open %s in your browser.", bare(st.Web[0]))
			case len(st.Web) > 1:
				parts["web"] = l.T("Open %s in your browser, or %s.", bare(st.Web[0]), page)
			}
			if page := bare(byAddress(st.Web)); page != "" && len(st.Addresses) > 0 {
				parts["ip"] = l.T("My IP address is %s. To set me up, open %s in your browser.", l.And(st.Addresses), page)
			}
			if st.DiskTotal > 0 {
				parts["storage"] = l.T("Storage is %d percent used, %s free.", st.DiskUsed*100/st.DiskTotal, sayBytes(l, st.DiskTotal-st.DiskUsed))
			}
			if st.ModelErr != nil {
				parts["model"] = l.T("The model server isn't answering.")
			}
			detail := c.Args.String("detail")
			if detail == "all" {
				return command.Said(strings.Join([]string{parts["version"], parts["uptime"], parts["ip"], parts["storage"], parts["model"]}, " "), data), nil
			}
			return command.Said(parts[detail], data), nil
		},
	}
}

// bare is a page's address without its scheme.
func bare(u string) string { return strings.TrimPrefix(strings.TrimPrefix(u, "https://"), "http://") }

// byAddress is the page's address by IP, which works where NAME.local
// does not; the first when none is.
func byAddress(web []string) string {
	for _, u := range web {
		if h := strings.TrimPrefix(strings.TrimPrefix(u, "https://"), "http://"); h != "" && (h[0] >= '0' && h[0] <= '9' || h[0] == '[') {
			return u
		}
	}
	if len(web) > 0 {
		return web[0]
	}
	return ""
}

func sayUptime(l locale.Lang, d time.Duration) string {
	switch {
	case d < time.Minute:
		return l.T("less than a minute")
	case d < time.Hour:
		return l.Duration(d.Truncate(time.Minute))
	case d < 48*time.Hour:
		return l.Duration(d.Truncate(time.Hour))
	}
	return l.Duration(d.Truncate(24 * time.Hour))
}

func sayBytes(l locale.Lang, b uint64) string {
	switch {
	case b >= 1<<30:
		return l.T("%s gigabytes", l.Number(fmt.Sprintf("%.1f", float64(b)/(1<<30))))
	case b >= 1<<20:
		return l.T("%d megabytes", b>>20)
	}
	return l.T("%d kilobytes", b>>10)
}
