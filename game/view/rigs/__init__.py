"""The vehicles drawn: tank and car rigs, wheels and track belts, posed all at once."""
