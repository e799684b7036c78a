"""Writes the Wyoming transcripts the Go tests compare Hark's events with.

Each .wyo file is the byte stream the reference Python library writes for
a few events, as a client (describe, synthesize, streamed synthesis) or as
a text-to-speech server shaped like wyoming-piper's answers (info with
voices, with and without streaming, audio, streamed audio, an error with
a code).

Run with the reference library (wyoming 1.9.0) importable:
    PYTHONPATH=/path/to/wyoming-1.9.0 python3 transcripts.py
"""

import io
import struct

from wyoming.audio import AudioChunk, AudioStart, AudioStop
from wyoming.error import Error
from wyoming.event import write_event
from wyoming.info import Attribution, Describe, Info, TtsProgram, TtsVoice
from wyoming.tts import (
    Synthesize,
    SynthesizeChunk,
    SynthesizeStart,
    SynthesizeStop,
    SynthesizeStopped,
    SynthesizeVoice,
)
from wyoming.version import __version__

RATE, WIDTH, CHANNELS = 22050, 2, 1


def tone(n, level):
    """n samples alternating +level and -level, 16-bit little-endian."""
    return b"".join(struct.pack("<h", level if i % 2 == 0 else -level) for i in range(n))


def voice(name, language):
    return TtsVoice(
        name=name,
        description=name,
        attribution=Attribution(name="rhasspy", url="https://github.com/rhasspy/piper"),
        installed=True,
        version=None,
        languages=[language],
    )


def save(name, events):
    out = io.BytesIO()
    for event in events:
        write_event(event, out)
    with open(name, "wb") as f:
        f.write(out.getvalue())


def audio(n):
    return [
        AudioStart(rate=RATE, width=WIDTH, channels=CHANNELS).event(),
        AudioChunk(rate=RATE, width=WIDTH, channels=CHANNELS, audio=tone(n, 8000)).event(),
        AudioChunk(rate=RATE, width=WIDTH, channels=CHANNELS, audio=tone(n, 4000)).event(),
        AudioStop().event(),
    ]


info = Info(
    tts=[
        TtsProgram(
            name="piper",
            description="A fast, local, neural text to speech engine",
            attribution=Attribution(name="rhasspy", url="https://github.com/rhasspy/piper"),
            installed=True,
            version="2.4.0",
            voices=[
                voice("de_DE-thorsten-medium", "de_DE"),
                voice("en_GB-alba-medium", "en_GB"),
                voice("en_US-lessac-medium", "en_US"),
                voice("fr_FR-siwis-low", "fr_FR"),
                voice("fr_FR-siwis-medium", "fr_FR"),
            ],
            supports_synthesize_streaming=True,
        )
    ]
)

save("client_describe.wyo", [Describe().event()])
save("server_info.wyo", [info.event()])
info.tts[0].supports_synthesize_streaming = False
save("server_info_nostream.wyo", [info.event()])
save(
    "client_synthesize.wyo",
    [Synthesize(text="Der Timer läuft.", voice=SynthesizeVoice(name="de_DE-thorsten-medium")).event()],
)
save("server_audio.wyo", audio(4))
save(
    "client_stream.wyo",
    [
        SynthesizeStart(voice=SynthesizeVoice(name="en_GB-alba-medium")).event(),
        SynthesizeChunk(text="It is ten past four.").event(),
        SynthesizeStop().event(),
    ],
)
save("server_stream.wyo", audio(4) + audio(2) + [SynthesizeStopped().event()])
save("server_error.wyo", [Error(text="Unable to find voice: xx_XX", code="ValueError").event()])
print("wrote the transcripts with wyoming", __version__)
