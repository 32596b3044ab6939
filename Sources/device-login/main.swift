print("device-login")
