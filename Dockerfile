# One image for the flow runner (Prefect worker or `subgame run`) and the Dask workers, so
# both sides unpickle the same code. Build from the project root:
#   docker build -t subgame .                         # add --build-arg EXTRAS=hpc,k8s for clusters
# Run, e.g.:
#   docker run --rm -v $PWD/out:/data subgame subgame run guess-who --max-n 4096
#   docker run --rm subgame dask worker tcp://scheduler:8786 --nthreads 1   # a Dask worker
#   docker run --rm -e PREFECT_API_URL=http://prefect:4200/api subgame \
#       prefect worker start --pool subgame-process                          # a Prefect worker
# No ENTRYPOINT: Kubernetes and batch systems start `dask worker` in this image directly.
# See docs/deploy.md.
FROM python:3.11-slim

ARG EXTRAS=""
ENV PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    NUMBA_CACHE_DIR=/tmp/numba-cache \
    PREFECT_HOME=/tmp/prefect \
    SUBGAME_STORE=/data/subgame.zarr \
    SUBGAME_CLUSTER_PROFILES=/opt/subgame/deploy/clusters

WORKDIR /opt/subgame
# Dependencies first, from the metadata alone, so code edits do not reinstall them.
COPY pyproject.toml README.md ./
RUN mkdir subgame && touch subgame/__init__.py \
    && pip install ".${EXTRAS:+[$EXTRAS]}" \
    && pip uninstall -y subgame && rm -rf subgame build *.egg-info
# The code, installed in place: Prefect deployments resolve subgame/flows/run.py from
# this working directory, and the bundled cluster profiles stay under deploy/.
COPY subgame ./subgame
COPY deploy ./deploy
RUN pip install --no-deps -e . \
    && useradd --create-home --uid 1000 subgame \
    && mkdir -p /data && chown subgame /data
USER subgame
VOLUME /data
CMD ["subgame", "--help"]
