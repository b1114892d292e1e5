import PushBridgeCore
import PushBridgeServer

print("pushbridge")
