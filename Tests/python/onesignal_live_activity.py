"""Starts, updates and ends a Live Activity with the official OneSignal Python client
(onesignal-python-api 5.x), configured with nothing changed but its host: PushBridge's
(and, for https, the CA to trust: PB_CA). Prints one JSON line per call; exits non-zero on
any API error."""
import json
import os
import sys

import onesignal
from onesignal.api import default_api
from onesignal.model.language_string_map import LanguageStringMap
from onesignal.model.start_live_activity_request import StartLiveActivityRequest
from onesignal.model.update_live_activity_request import UpdateLiveActivityRequest

host, key, app_id = os.environ["PB_HOST"], os.environ["PB_KEY"], os.environ["PB_APP"]
activity_id = os.environ.get("PB_ACTIVITY", "py_order_1")
configuration = onesignal.Configuration(host=host, rest_api_key=key)
if os.environ.get("PB_CA"):
    configuration.ssl_ca_cert = os.environ["PB_CA"]

with onesignal.ApiClient(configuration) as client:
    api = default_api.DefaultApi(client)
    try:
        started = api.start_live_activity(app_id, "DeliveryAttributes", StartLiveActivityRequest(
            name="Order py-1 out for delivery", event="start", activity_id=activity_id,
            event_attributes={"orderNumber": "py-1", "storeName": "Bakery on Main"},
            event_updates={"stage": "out_for_delivery", "etaMinutes": 22},
            contents=LanguageStringMap(en="Arriving in about 22 minutes"),
            headings=LanguageStringMap(en="On the way"),
            included_segments=["seg_01hq8n4t2v"]))
        print(json.dumps({"call": "start", "notification_id": started.notification_id}))
        updated = api.update_live_activity(app_id, activity_id, UpdateLiveActivityRequest(
            name="Order py-1 nearby", event="update", event_updates={"stage": "arriving", "etaMinutes": 3},
            contents=LanguageStringMap(en="3 minutes away"), headings=LanguageStringMap(en="Almost there")))
        print(json.dumps({"call": "update", "id": updated.id}))
        ended = api.update_live_activity(app_id, activity_id, UpdateLiveActivityRequest(
            name="Order py-1 delivered", event="end", event_updates={"stage": "delivered", "etaMinutes": 0},
            dismissal_date=1781053200))
        print(json.dumps({"call": "end", "id": ended.id}))
    except onesignal.ApiException as error:
        print(json.dumps({"error": error.status, "body": str(error.body)}))
        sys.exit(1)
