"""Ports for the servers a test starts: two asked for in a row are never the same one."""

from service.redis_server import free_port


def test_free_port_never_hands_out_a_port_twice():
    # The kernel's bind to port 0 repeats a port once its socket is closed (about 7 % of 2,000
    # calls here): a web server and its Redis given the same port fail to start.
    ports = [free_port() for _ in range(2000)]
    assert len(set(ports)) == len(ports)
