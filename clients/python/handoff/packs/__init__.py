"""Request types of each pack, generated from clients/schemas/PACK/openapi.json by clients/python/generate.py."""
