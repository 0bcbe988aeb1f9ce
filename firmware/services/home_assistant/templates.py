"""The templates Home Assistant renders on the prop's payloads (Jinja2, in Home Assistant's sandbox).

Each reads a document the prop publishes anyway (the state, an event, the diagnostics), so
nothing is published for Home Assistant alone; tests/test_home_assistant.py renders each
on real payloads with Home Assistant's rules (which attributes it drops, what an event needs).
"""

#: Each event entity's payload, from an event on ``P/events``: Home Assistant's JSON with
#: ``event_type`` (the rest become the event's attributes), or nothing for the other kinds of
#: event (Home Assistant ignores an empty rendering).
STRIKE_TEMPLATE = (
    "{{ {'event_type': 'strike', 'strikes': value_json.strikes, 'reason': value_json.reason, "
    "'detail': value_json.detail} | tojson if value_json.event == 'strike' else '' }}"
)
#: The update entity: the version running, from the diagnostics document (one source: the package's
#: metadata, see firmware/cli/helptext.py). The prop learns of no newer release by itself (it may have
#: no internet): the latest version is the one installed, and an update is `sudo baccarat update`.
UPDATE_TEMPLATE = (
    "{{ {'installed_version': value_json.version, 'latest_version': value_json.version, "
    "'title': 'Baccarat prop'} | tojson }}"
)
SOLVED_TEMPLATE = (
    "{{ {'event_type': 'solved', 'forced': value_json.forced} | tojson if value_json.event == 'solved' else '' }}"
)
EXPLODED_TEMPLATE = (
    "{{ {'event_type': 'exploded', 'cause': value_json.cause, 'strikes': value_json.strikes} | tojson "
    "if value_json.event == 'exploded' else '' }}"
)
#: The countdown's seconds left as of the last state document (``None``: unknown, a bomb without a timer).
TIME_LEFT_TEMPLATE = "{{ value_json.timer.seconds_left if value_json.timer else None }}"
#: The countdown as the time-left sensor's attributes. Home Assistant drops an attribute named ``state``
#: (and the others of MQTT_ATTRIBUTES_BLOCKED, homeassistant/components/mqtt/entity.py): the timer's
#: state is ``timer_state`` there (waiting, running, paused, stopped).
TIME_LEFT_ATTRIBUTES = (
    "{% set t = value_json.timer %}{{ {'seconds': t.seconds, 'seconds_left': t.seconds_left, "
    "'timer_state': t.state, 'running': t.running, 'rate': t.rate} | tojson if t else '{}' }}"
)
