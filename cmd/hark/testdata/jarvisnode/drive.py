"""Drive a stock Jarvis node's own code (alexberardi/jarvis-node-setup)
against a command center, one scenario per run, and print what happened
as JSON on the last line of stdout.

Usage: drive.py WORKDIR stream|command TEXT [ANSWER]
       drive.py WORKDIR media WAV
Environment: JARVIS_NODE_SRC (the node's source tree), JARVIS_SDK_SRC
(jarvis-command-sdk), JARVIS_LOG_CLIENT_SRC (jarvis-log-client),
JARVIS_NODE_ID, JARVIS_API_KEY, JARVIS_CENTER_URL.

Only the platform's edges are replaced: audio playback (recorded, not
played) and the SQLCipher driver (plain sqlite3, as no Python binding of
SQLCipher is packaged here). Everything the node says to the center is
its own code: RestClient, JarvisCommandCenterClient, the response models,
CommandExecutionService, its commands and its timer service.
"""

import json
import os
import sqlite3
import sys
import types


def setup(workdir):
    src = os.environ["JARVIS_NODE_SRC"]
    sys.path[:0] = [src, os.environ["JARVIS_SDK_SRC"], os.environ["JARVIS_LOG_CLIENT_SRC"]]
    # Debian's packages (httpx, SQLAlchemy) after the interpreter's own, so
    # its pydantic 2 wins over Debian's 1.x.
    sys.path.append("/usr/lib/python3/dist-packages")
    shim = types.ModuleType("sqlcipher3")
    shim.__dict__.update({k: v for k, v in sqlite3.__dict__.items() if not k.startswith("__")})
    shim.dbapi2 = sqlite3
    sys.modules["sqlcipher3"] = shim

    # The node's stock configuration, with only its id, key and center set.
    with open(os.path.join(src, "config.example.json")) as f:
        config = json.load(f)
    config["node_id"] = os.environ["JARVIS_NODE_ID"]
    config["api_key"] = os.environ["JARVIS_API_KEY"]
    config["jarvis_command_center_api_url"] = os.environ["JARVIS_CENTER_URL"]
    path = os.path.join(workdir, "config.json")
    with open(path, "w") as f:
        json.dump(config, f)
    os.environ["CONFIG_PATH"] = path
    os.environ["JARVIS_NODE_DB"] = os.path.join(workdir, "node.db")
    os.environ["JARVIS_SECRET_DIRECTORY"] = os.path.join(workdir, "secrets")
    os.environ.pop("JARVIS_NODE_ID")  # the node reads its id from the file
    os.environ.pop("JARVIS_API_KEY")

    import db
    import models
    import models.command_data  # noqa: F401 the timers' table
    import models.command_registry  # noqa: F401
    models.Base.metadata.create_all(db.engine)


class Speaker:
    """Plays nothing: keeps the PCM the node would have played."""

    def __init__(self):
        self.bytes = 0
        self.formats = []
        self.is_cancelled = False

    def play_pcm_stream(self, chunks, sample_rate=22050, channels=1, sample_width=2):
        self.formats.append([sample_rate, channels, sample_width])
        for c in chunks:
            self.bytes += len(c)
        return True

    def play_audio_file(self, path, volume=1.0):
        self.bytes += os.path.getsize(path)
        return True

    def play_chime(self, path):
        return True


def media(wav_path, speaker):
    """The node's stock speech providers, which all use the center."""
    from clients.jarvis_command_center_client import JarvisCommandCenterClient
    from stt_providers.jarvis_whisper_client import JarvisWhisperClient
    from tts_providers.jarvis_tts_api import JarvisTTS
    from wake_response_providers.jarvis_tts_wake_response import JarvisTTSWakeResponseProvider
    from utils.service_discovery import get_command_center_url

    out = {"transcript": JarvisWhisperClient().transcribe(wav_path)}
    tts = JarvisTTS()
    tts.speak(False, "The kettle has boiled.")
    out["spoken_bytes"] = speaker.bytes
    out["streamed"] = tts.speak_stream("One sentence to stream. And a second one.")
    out["streamed_bytes"] = speaker.bytes - out["spoken_bytes"]
    out["wake"] = JarvisTTSWakeResponseProvider().fetch_next_wake_response()
    client = JarvisCommandCenterClient(get_command_center_url())
    out["ack"] = client.get_acknowledgment("what is the weather like")
    out["chat"] = client.chat_text("Answer with one word: hello")
    return out


def main():
    workdir, scenario = sys.argv[1], sys.argv[2]
    text = sys.argv[3] if len(sys.argv) > 3 else ""
    answer = sys.argv[4] if len(sys.argv) > 4 else ""
    setup(workdir)

    import core.platform_audio
    speaker = Speaker()
    core.platform_audio.platform_audio = speaker
    import tts_providers.jarvis_tts_api as tts_api
    tts_api.platform_audio = speaker
    from clients.rest_client import RestClient
    from services.timer_service import get_timer_service
    import utils.command_execution_service as ces
    ces.platform_audio = speaker

    requests_seen = []

    def seen(resp, *args, **kwargs):
        path = resp.request.path_url.split("?")[0]
        requests_seen.append([resp.request.method, path, resp.status_code])

    RestClient._get_session().hooks["response"].append(seen)
    questions = []

    def handler(vr):
        questions.append({"question": vr.question, "parameter_name": vr.parameter_name,
                          "options": vr.options, "tool_call_id": vr.tool_call_id})
        return answer

    if scenario == "media":
        print(json.dumps(dict(media(text, speaker), requests=requests_seen), default=str))
        sys.stdout.flush()
        os._exit(0)
    service = ces.CommandExecutionService()
    commands = sorted(service.command_discovery.get_all_commands().keys())
    if scenario == "stream":
        # A new interaction: /voice/command/stream.
        result = service.process_voice_command(text, validation_handler=handler)
    elif scenario == "command":
        # A follow-up in a started conversation: /voice/command.
        conv = service._generate_conversation_id()
        service.register_tools_for_conversation(conv)
        result = service.continue_conversation(conv, text, validation_handler=handler)
    else:
        raise SystemExit("unknown scenario " + scenario)
    print(json.dumps({
        "result": result, "requests": requests_seen, "questions": questions,
        "audio_bytes": speaker.bytes, "audio_formats": speaker.formats,
        "timers": get_timer_service().get_active_timers(), "commands": commands,
    }, default=str))
    sys.stdout.flush()
    os._exit(0)  # the node's background threads are not ours to wait for


if __name__ == "__main__":
    main()
