"""Schemathesis hooks of test/conformance/schemathesis.test.ts (loaded through schemathesis.toml).

Two jobs, each documented in docs/conformance.md:

- `after_call`: a `PUT /_operator/faults` the emulator accepted is followed at once by
  `PUT /_operator/faults {}`, so that the faults a generated configuration switches on (503s,
  resets, minutes of latency on the public API) never reach the next request of the run.
- `filter_failure`: drops the failures of the rules no schema can state, each named by its
  operation, its check's failure code, the service's error code and the words of its message;
  any other failure of the same operation and check still counts.
"""

import json
import os
import re
from urllib.parse import urlsplit

import requests
import schemathesis

ADMIN_KEY = os.environ["CONFORMANCE_ADMIN_KEY"]

# (operationId, failure code, error_code of the response body, regex its `msg` matches): the
# exclusions listed in docs/conformance.md § Exclusions, in the same order.
EXCLUSIONS = [
    # A subscription's destinations must be event destinations of the same account (state).
    ("createEventSubscription", "ST202", "ERR_SERVICE_223", r"is not an event destination of this account"),
    ("updateEventSubscription", "ST202", "ERR_SERVICE_223", r"is not an event destination of this account"),
    # An update's `id`, when sent, is the ID in the path (a relation between body and path).
    ("updateEventSubscription", "ST202", "ERR_SERVICE_215", r"^id: must equal the ID in the path"),
    ("updateEventDestination", "ST202", "ERR_SERVICE_215", r"^id: must equal the ID in the path"),
    # A review names hostnames of that abuse report (state).
    ("reviewAbuseReport", "ST202", "ERR_SERVICE_215", r"not a hostname of abuse report"),
    # A review names each hostname once, whatever the statuses (items unique by one key:
    # `uniqueItems` compares whole items).
    ("reviewAbuseReport", "ST202", "ERR_SERVICE_215", r"duplicate hostname"),
    # The four fault shares add up to at most 1 (a sum: JSON Schema has no arithmetic).
    ("setFaults", "ST202", "ERR_SERVICE_215", r"add up to .* more than 1"),
    # The latency's jitter is at most the latency it varies (a relation between two fields).
    ("setFaults", "ST202", "ERR_SERVICE_215", r"^latencyJitterMs: must be at most latencyMs"),
    # A key is added to the account of a key the emulator accepts, and is no key yet (state).
    ("addApiKey", "ST202", "ERR_SERVICE_215", r"^same_account_as: is not an API key this emulator accepts"),
    ("addApiKey", "ST202", "ERR_SERVICE_215", r"^api_key: is already a key of an account"),
]


def _operation_id(case):
    return case.operation.definition.raw.get("operationId")


def _error_body(response):
    try:
        body = json.loads(response.content)
    except ValueError:
        return None
    return body if isinstance(body, dict) else None


@schemathesis.hook
def filter_failure(context, failure, case, response):
    """False (drop) for a failure that is one of EXCLUSIONS; True (keep) for any other."""
    body = _error_body(response)
    if body is None:
        return True
    for operation_id, code, error_code, message in EXCLUSIONS:
        if (
            _operation_id(case) == operation_id
            and failure.code == code
            and body.get("error_code") == error_code
            and re.search(message, str(body.get("msg", "")))
        ):
            return False
    return True


@schemathesis.hook
def after_call(context, case, response):
    """Switches injected faults off again after a fault configuration was accepted."""
    if _operation_id(case) == "setFaults" and response.status_code == 200:
        url = urlsplit(response.request.url)
        reset = requests.put(
            f"{url.scheme}://{url.netloc}/_operator/faults",
            json={},
            headers={"Authorization": f"Bearer {ADMIN_KEY}"},
            timeout=30,
        )
        reset.raise_for_status()
