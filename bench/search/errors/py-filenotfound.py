open("/nonexistent/settings.toml")
