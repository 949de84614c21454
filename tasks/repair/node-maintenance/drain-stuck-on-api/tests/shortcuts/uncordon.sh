#!/bin/sh
# call the maintenance off
kubectl uncordon node-2
