# Sourced by tools/setup.sh and toolchains/install_cross_deps.sh: the one way attnrt's
# scripts install Debian packages.
#
# Why a failed `apt-get update` is only a warning: a mirror that is mid-sync answers one index
# with "File has unexpected size ... Mirror sync in progress?" for half an hour at a time, while
# every other index (and so every package we need) is fine. The only failure that matters is a
# package that cannot be installed, so that is what stops the script, by name.
#
# Environment: APT_UPDATE_RETRY_PAUSE seconds between the two update tries (default 20),
#              SUDO (optional) a prefix such as "sudo -E" when not running as root.

APT_UPDATE_RETRY_PAUSE=${APT_UPDATE_RETRY_PAUSE:-20}
# Another apt or dpkg run (an unattended upgrade, a second script) holds the lock for a while;
# wait for it instead of failing.
APT_LOCK_WAIT=(-o DPkg::Lock::Timeout=600)
SUDO=${SUDO:-}
export DEBIAN_FRONTEND=noninteractive
apt_updated=0

# True when the package (optionally NAME:ARCH) is installed.
apt_is_installed() {
  [ "$(dpkg-query -W -f='${db:Status-Abbrev}' "$1" 2>/dev/null | cut -c1-2)" = "ii" ]
}

# Runs `apt-get update` at most once per script run (apt_updated=0 asks for another, e.g.
# after a new dpkg architecture); a failure is retried once after a pause, then reported and
# ignored: `apt-get install` decides whether what was fetched is enough.
apt_update_once() {
  [ "$apt_updated" -eq 1 ] && return 0
  apt_updated=1
  if $SUDO apt-get "${APT_LOCK_WAIT[@]}" update -q; then return 0; fi
  echo "apt: warning: 'apt-get update' failed; retrying once in ${APT_UPDATE_RETRY_PAUSE} s" >&2
  sleep "$APT_UPDATE_RETRY_PAUSE"
  if $SUDO apt-get "${APT_LOCK_WAIT[@]}" update -q; then return 0; fi
  echo "apt: warning: 'apt-get update' failed again; going on with the package lists we have" >&2
  return 0
}

# Installs whichever of the given packages are missing; updates the lists only then. Fails
# (non-zero) naming every package that is still not installed afterwards.
apt_install_missing() {
  local missing=() pkg
  for pkg in "$@"; do
    apt_is_installed "$pkg" || missing+=("$pkg")
  done
  if [ "${#missing[@]}" -eq 0 ]; then
    echo "apt: already installed: $*"
    return 0
  fi
  apt_update_once
  echo "apt: installing ${missing[*]}"
  if ! $SUDO apt-get "${APT_LOCK_WAIT[@]}" install -y -q --no-install-recommends "${missing[@]}"; then
    # One package apt cannot find fails the whole transaction; install the rest one by one
    # so the message names exactly the packages that are unavailable.
    for pkg in "${missing[@]}"; do
      apt_is_installed "$pkg" || $SUDO apt-get "${APT_LOCK_WAIT[@]}" install -y -q --no-install-recommends "$pkg" || true
    done
  fi
  local failed=()
  for pkg in "${missing[@]}"; do
    apt_is_installed "$pkg" || failed+=("$pkg")
  done
  if [ "${#failed[@]}" -ne 0 ]; then
    echo "apt: ERROR: could not install: ${failed[*]}" >&2
    return 1
  fi
}
