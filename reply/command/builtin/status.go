package builtin

import (
	"context"
	"fmt"
	"strings"
	"time"

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
}

// StatusSource gathers the device's status; cmd/hark provides it.
type StatusSource interface {
	Status(ctx context.Context) DeviceStatus
}

// Status is device_status.
func Status(src StatusSource) *command.Command {
	return &command.Command{
		Name:        "device_status",
		Description: "This speaker's version, uptime, IP address, storage use and model server state.",
		Keywords:    []string{"status", "ip address", "version", "storage", "uptime"},
		Parameters:  []command.Parameter{{Name: "detail", Type: "string", Enum: []string{"all", "version", "uptime", "ip", "storage", "model"}, Default: "all"}},
		PreRoute: func(text string) (command.Claim, bool) {
			t := trim(text)
			for detail, phrases := range map[string][]string{
				"all":     {"device status", "system status", "status report", "status", "how are you doing", "give me a status report", "diagnostics"},
				"ip":      {"what is your ip address", "what is your ip", "ip address", "what is the ip address"},
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
			}
			parts := map[string]string{
				"version": "I'm running Hark version " + st.Version + ".",
				"uptime":  "I've been running for " + sayUptime(st.Uptime) + ".",
				"ip":      "I have no network address.",
				"storage": "I can't tell how much storage is left.",
				"model":   "The model server answers, with " + st.Model + ".",
			}
			if len(st.Addresses) > 0 {
				parts["ip"] = "My IP address is " + joinAnd(st.Addresses) + "."
			}
			if st.DiskTotal > 0 {
				parts["storage"] = fmt.Sprintf("Storage is %d percent used, %s free.", st.DiskUsed*100/st.DiskTotal, sayBytes(st.DiskTotal-st.DiskUsed))
			}
			if st.ModelErr != nil {
				parts["model"] = "The model server isn't answering."
			}
			detail := c.Args.String("detail")
			if detail == "all" {
				return command.Said(strings.Join([]string{parts["version"], parts["uptime"], parts["ip"], parts["storage"], parts["model"]}, " "), data), nil
			}
			return command.Said(parts[detail], data), nil
		},
	}
}

func sayUptime(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "less than a minute"
	case d < time.Hour:
		return fmt.Sprintf("%d minutes", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d hours", int(d.Hours()))
	}
	return fmt.Sprintf("%d days", int(d.Hours()/24))
}

func sayBytes(b uint64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.1f gigabytes", float64(b)/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%d megabytes", b>>20)
	}
	return fmt.Sprintf("%d kilobytes", b>>10)
}
