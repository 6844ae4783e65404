"""The dice reader: a tray photo in, a TrayReading out."""
