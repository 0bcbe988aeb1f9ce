"""The prop's place in the room: MQTT and Room 2.0, the local control socket,
the one game-master command path, and the state that survives a power cut.

Each service attaches to the daemon's hooks and sends it calls; the
daemon knows none of them.
"""

#: How long a front end waits for a command's reply (a deal in progress holds a command a few seconds).
COMMAND_TIMEOUT = 30.0
