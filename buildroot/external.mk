# Hark's packages: hark (the Go program), hark-system (A/B update and data
# partition plumbing) and whisper-cpp (speech to text, linked into hark).
include $(sort $(wildcard $(BR2_EXTERNAL_HARK_PATH)/package/*/*.mk))
