"""Model backends: how a model is asked. Chosen by name; the rest of skillbench never knows which."""
