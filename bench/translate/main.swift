import PushBridgeCore
print("bench")
