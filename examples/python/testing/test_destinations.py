"""What a user of the service checks against the emulator: a destination created over HTTP
reads back as it was given (its secret left out), a key added to the account sees it too, and
a revoked key no longer gets in."""

DESTINATION = {
    "description": "audit events",
    "target": {
        "kinesis": {
            "auth": {"role": {"role_arn": "arn:aws:iam::123456789012:role/audit"}},
            "stream_arn": "arn:aws:kinesis:us-east-1:123456789012:stream/audit",
        }
    },
}


def test_a_destination_reads_back_as_created(emulator):
    status, created = emulator.request("POST", "/event_destinations", DESTINATION)
    assert status == 201, created
    assert created["id"].startswith("ed_")
    assert created["uri"] == f"{emulator.url}/event_destinations/{created['id']}"

    status, read = emulator.request("GET", f"/event_destinations/{created['id']}")
    assert status == 200, read
    assert read["description"] == "audit events"
    assert read["target"] == DESTINATION["target"]

    status, listed = emulator.request("GET", "/event_destinations")
    assert status == 200, listed
    assert created["id"] in [d["id"] for d in listed["event_destinations"]]


def test_a_rotated_key_sees_the_same_destinations(emulator):
    status, created = emulator.request("POST", "/event_destinations", DESTINATION)
    assert status == 201, created

    # Key rotation through the operator endpoints (docs/emulator.md, "API keys (key rotation)").
    status, account = emulator.request(
        "POST",
        "/_operator/keys",
        {"api_key": "key-pytest-rotated", "same_account_as": emulator.api_key},
        key=emulator.admin_key,
        version=False,
    )
    assert status == 201, account
    assert account["key_count"] == 2

    status, read = emulator.request(
        "GET", f"/event_destinations/{created['id']}", key="key-pytest-rotated"
    )
    assert status == 200, read

    status, revoked = emulator.request(
        "POST",
        "/_operator/keys/revoke",
        {"api_key": "key-pytest-rotated"},
        key=emulator.admin_key,
        version=False,
    )
    assert status == 200, revoked
    status, denied = emulator.request("GET", "/event_destinations", key="key-pytest-rotated")
    assert status == 401, denied
