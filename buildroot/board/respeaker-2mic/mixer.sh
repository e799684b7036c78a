#!/bin/sh
# Mixer settings for the ReSpeaker 2-Mics Pi HAT's WM8960, run once the
# sound card is up (hark-mixer.service). The codec starts with its inputs
# and outputs switched off: this routes both microphones (LINPUT1,
# RINPUT1) through the boost stage to the ADCs and the DAC to the speaker
# and headphone outputs, at fixed gains. Hark's own volume and the
# "Hark Playback Volume" ceiling in asound.conf do the rest.
card=seeed2micvoicec

# The codec's driver may still be probing when sound.target is reached.
i=0
while [ ! -e "/proc/asound/$card" ]; do
	i=$((i + 1))
	if [ "$i" -gt 20 ]; then
		echo "hark-mixer: no sound card $card after 20 s" >&2
		exit 1
	fi
	sleep 1
done

failed=0
set_control() {
	if ! amixer -q -c "$card" cset name="$1" "$2"; then
		echo "hark-mixer: could not set '$1' to $2" >&2
		failed=1
	fi
}

# Capture: microphones into the boost mixers, boost into the input mixers.
set_control 'Left Boost Mixer LINPUT1 Switch' on
set_control 'Right Boost Mixer RINPUT1 Switch' on
set_control 'Left Input Mixer Boost Switch' on
set_control 'Right Input Mixer Boost Switch' on
set_control 'Capture Switch' on,on
set_control 'Capture Volume' 39,39
set_control 'ADC PCM Capture Volume' 195,195

# Playback: DAC into the output mixers, 0 dB at the DAC and the speaker.
set_control 'Left Output Mixer PCM Playback Switch' on
set_control 'Right Output Mixer PCM Playback Switch' on
set_control 'Playback Volume' 255,255
set_control 'Speaker Playback Volume' 121,121
set_control 'Headphone Playback Volume' 115,115

exit "$failed"
