"""The ground floor: text utilities every layer may use. Nothing here imports another
module of the project."""
