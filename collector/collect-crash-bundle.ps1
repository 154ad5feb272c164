<#
.SYNOPSIS
    Gathers what CrashLab needs to diagnose a crashed GPU job on Windows into one zip you can upload.

.DESCRIPTION
    Collects: your log files, nvidia-smi and nvidia-smi -q -x, nvcc -V, pip list, conda list, Python /
    PyTorch / TensorFlow versions with their build information, OS, CPU model and flags (AVX), the TDR
    watchdog settings, and the recent Application and System events that matter for crashes (Application
    Error, Windows Error Reporting, Application Hang, .NET Runtime, nvlddmkm, Display, Kernel-Power,
    WHEA, BugCheck, Resource-Exhaustion) as .evtx and as XML.
    A source that is missing or fails is noted in collector.txt ("could not collect ...") and skipped.
    Nothing is sent anywhere. Works in Windows PowerShell 5.1 and PowerShell 7; does not use wmic.

.PARAMETER LogFile
    The crashed program's console output or traceback (as many as you like).
.PARAMETER Output
    Where to write the bundle (default: .\crash-bundle-<date>.zip).
.PARAMETER Python
    The Python that ran the job (default: the first python on PATH).
.PARAMETER Days
    How many days of events to collect (default 7).
.PARAMETER NoRedact
    Keep your user name and computer name in the files (they are replaced by default).

.EXAMPLE
    powershell -ExecutionPolicy Bypass -File collect-crash-bundle.ps1 C:\work\train.log
#>
[CmdletBinding()]
param(
    [Parameter(Position = 0, ValueFromRemainingArguments = $true)]
    [string[]] $LogFile = @(),
    [string] $Output = '',
    [string] $Python = '',
    [ValidateRange(1, 365)]
    [int] $Days = 7,
    [switch] $NoRedact,
    # also upload the bundle to this CrashLab server (e.g. http://crashlab:8080)
    [string] $Server = '',
    # the API token for -Server (default: $env:CRASHLAB_TOKEN)
    [string] $Token = $env:CRASHLAB_TOKEN
)

Set-StrictMode -Version 2.0
$ErrorActionPreference = 'Continue'

$stamp = Get-Date -Format 'yyyyMMdd-HHmmss'
if (-not $Output) { $Output = Join-Path (Get-Location).Path "crash-bundle-$stamp.zip" }
$Output = [System.IO.Path]::GetFullPath($Output)
$work = Join-Path ([System.IO.Path]::GetTempPath()) ("crash-bundle-" + [guid]::NewGuid().ToString('N'))
$dir = Join-Path $work "crash-bundle-$stamp"
New-Item -ItemType Directory -Path $dir -Force | Out-Null
$report = Join-Path $dir 'collector.txt'
$utf8 = New-Object System.Text.UTF8Encoding($false)
[System.IO.File]::WriteAllText($report, "# collect-crash-bundle.ps1 (CrashLab) on $((Get-Date).ToUniversalTime().ToString('yyyy-MM-ddTHH:mm:ssZ'))`r`n# what was collected, and what could not be`r`n", $utf8)

function Write-Note([string] $text) {
    [System.IO.File]::AppendAllText($report, $text + "`r`n", $utf8)
    Write-Host "collect-crash-bundle: $text"
}

function Find-Command([string[]] $candidates) {
    foreach ($c in $candidates) {
        if (-not $c) { continue }
        $cmd = Get-Command $c -ErrorAction SilentlyContinue | Select-Object -First 1
        if ($cmd) { return $cmd.Source }
        if (Test-Path -LiteralPath $c -PathType Leaf) { return $c }
    }
    return $null
}

# Runs a program, writes its standard output to a file as UTF-8, and notes what happened.
function Save-Output([string] $file, [string] $what, [string] $exe, [string[]] $arguments) {
    if (-not $exe) { Write-Note "could not collect ${what}: not found"; return $false }
    $target = Join-Path $dir $file
    try {
        $lines = & $exe @arguments 2>$null
        $code = $LASTEXITCODE
        if ($null -eq $lines) { $lines = @() }
        [System.IO.File]::WriteAllLines($target, [string[]]$lines, $utf8)
        if ((Get-Item -LiteralPath $target).Length -gt 0) {
            if ($code -and $code -ne 0) { Write-Note "collected $what -> $file (exit status $code)" }
            else { Write-Note "collected $what -> $file" }
            return $true
        }
        Remove-Item -LiteralPath $target -ErrorAction SilentlyContinue
        Write-Note "could not collect ${what}: no output (exit status $code)"
    } catch {
        Remove-Item -LiteralPath $target -ErrorAction SilentlyContinue
        Write-Note "could not collect ${what}: $($_.Exception.Message)"
    }
    return $false
}

# --- the user's logs
if ($LogFile.Count -eq 0) {
    Write-Note "no log file given: pass the crashed program's output (e.g. collect-crash-bundle.ps1 train.log) for a diagnosis"
}
$i = 0
foreach ($log in $LogFile) {
    $i++
    if (Test-Path -LiteralPath $log -PathType Leaf) {
        $name = Split-Path -Leaf $log
        if (Test-Path -LiteralPath (Join-Path $dir $name)) { $name = "$i-$name" }
        Copy-Item -LiteralPath $log -Destination (Join-Path $dir $name)
        Write-Note "collected log $log -> $name"
    } else {
        Write-Note "could not collect log ${log}: not a readable file"
    }
}

# --- GPU and driver
$smi = Find-Command @('nvidia-smi', "$env:ProgramFiles\NVIDIA Corporation\NVSMI\nvidia-smi.exe", "$env:SystemRoot\System32\nvidia-smi.exe")
Save-Output 'nvidia-smi.txt' 'nvidia-smi' $smi @() | Out-Null
Save-Output 'nvidia-smi-q.xml' 'nvidia-smi -q -x' $smi @('-q', '-x') | Out-Null
Save-Output 'nvcc-version.txt' 'nvcc -V' (Find-Command @('nvcc')) @('-V') | Out-Null

# --- environment summary as key: value
$envLines = New-Object System.Collections.Generic.List[string]
$envLines.Add('# written by collect-crash-bundle.ps1')
try {
    $os = Get-CimInstance -ClassName Win32_OperatingSystem -ErrorAction Stop
    $envLines.Add("os: $($os.Caption) $($os.Version) (build $($os.BuildNumber))")
    $envLines.Add("arch: $env:PROCESSOR_ARCHITECTURE")
    $envLines.Add("memory: $([math]::Round($os.TotalVisibleMemorySize / 1MB, 1)) GB")
} catch { Write-Note "could not collect the OS version: $($_.Exception.Message)" }
try {
    $cpu = Get-CimInstance -ClassName Win32_Processor -ErrorAction Stop | Select-Object -First 1
    $envLines.Add("cpu: $($cpu.Name.Trim())")
} catch { Write-Note "could not collect the CPU model: $($_.Exception.Message)" }
try {
    # IsProcessorFeaturePresent: 39 = PF_AVX_INSTRUCTIONS_AVAILABLE, 40 = PF_AVX2_INSTRUCTIONS_AVAILABLE,
    # 41 = PF_AVX512F_INSTRUCTIONS_AVAILABLE (Microsoft's documentation of the function).
    Add-Type -Namespace CrashLab -Name CpuFeatures -MemberDefinition '[DllImport("kernel32.dll")] public static extern bool IsProcessorFeaturePresent(uint feature);' -ErrorAction Stop
    $flags = @()
    if ([CrashLab.CpuFeatures]::IsProcessorFeaturePresent(39)) { $flags += 'avx' }
    if ([CrashLab.CpuFeatures]::IsProcessorFeaturePresent(40)) { $flags += 'avx2' }
    if ([CrashLab.CpuFeatures]::IsProcessorFeaturePresent(41)) { $flags += 'avx512f' }
    $envLines.Add("cpu-flags: $($flags -join ' ')")
} catch { Write-Note "could not collect the CPU flags: $($_.Exception.Message)" }
try {
    $gd = Get-ItemProperty -Path 'HKLM:\SYSTEM\CurrentControlSet\Control\GraphicsDrivers' -ErrorAction Stop
    $tdrDelay = if ($gd.PSObject.Properties['TdrDelay']) { "$($gd.TdrDelay) s" } else { 'default (2 s)' }
    $tdrLevel = if ($gd.PSObject.Properties['TdrLevel']) { "$($gd.TdrLevel)" } else { 'default (3, recover)' }
    $envLines.Add("tdr-delay: $tdrDelay")
    $envLines.Add("tdr-level: $tdrLevel")
} catch { Write-Note "could not collect the TDR settings: $($_.Exception.Message)" }
if ($smi) {
    try {
        $driver = & $smi '--query-gpu=driver_version' '--format=csv,noheader' 2>$null | Select-Object -First 1
        if ($driver) { $envLines.Add("driver: $($driver.Trim())") }
        foreach ($row in (& $smi '--query-gpu=name,memory.total' '--format=csv,noheader' 2>$null)) {
            $parts = $row -split ',', 2
            if ($parts.Count -eq 2) { $envLines.Add("gpu: $($parts[0].Trim()) $($parts[1].Trim())") }
        }
    } catch { Write-Note "could not query nvidia-smi for the driver and GPUs: $($_.Exception.Message)" }
} else {
    try {
        foreach ($vc in (Get-CimInstance -ClassName Win32_VideoController -ErrorAction Stop)) {
            $envLines.Add("gpu: $($vc.Name) (driver $($vc.DriverVersion))")
        }
    } catch { Write-Note "could not list the video controllers: $($_.Exception.Message)" }
}
$py = Find-Command @($Python, 'python', 'python3', 'py')
if ($py) {
    $pyVersion = & $py -V 2>&1 | Select-Object -First 1
    if ($pyVersion) { $envLines.Add("python: $("$pyVersion" -replace '^Python\s+', '')") }
}
[System.IO.File]::WriteAllLines((Join-Path $dir 'env.txt'), $envLines.ToArray(), $utf8)
Write-Note 'collected OS, CPU, TDR, Python and GPU summary -> env.txt'

# --- Python packages and frameworks
if ($py) {
    Save-Output 'pip-list.txt' 'pip list' $py @('-m', 'pip', 'list', '--disable-pip-version-check') | Out-Null
    & $py -c 'import torch' 2>$null | Out-Null
    if ($LASTEXITCODE -eq 0) {
        Save-Output 'torch-collect-env.txt' 'PyTorch collect_env' $py @('-m', 'torch.utils.collect_env') | Out-Null
    } else { Write-Note "not collected: PyTorch collect_env (torch is not importable by $py)" }
    & $py -c 'import tensorflow' 2>$null | Out-Null
    if ($LASTEXITCODE -eq 0) {
        Save-Output 'tf-build-info.txt' 'TensorFlow build info' $py @('-c', "import tensorflow as tf; print('TensorFlow version:', tf.version.VERSION); print(tf.sysconfig.get_build_info())") | Out-Null
    } else { Write-Note "not collected: TensorFlow build info (tensorflow is not importable by $py)" }
} else {
    Write-Note 'could not collect Python, pip list and framework versions: no python found (use -Python)'
}
Save-Output 'conda-list.txt' 'conda list' (Find-Command @('conda')) @('list') | Out-Null

# --- event logs: the providers that matter for crashed GPU jobs, last $Days days
$ms = [int64]$Days * 24 * 3600 * 1000
$queries = @(
    @{ Log = 'Application'; File = 'application-crash-events'; Providers = @('Application Error', 'Windows Error Reporting', 'Application Hang', '.NET Runtime') },
    @{ Log = 'System'; File = 'system-gpu-power-events'; Providers = @('nvlddmkm', 'Display', 'Microsoft-Windows-Kernel-Power', 'Microsoft-Windows-WHEA-Logger', 'Microsoft-Windows-WER-SystemErrorReporting', 'BugCheck', 'Microsoft-Windows-Resource-Exhaustion-Detector') }
)
$wevtutil = Find-Command @('wevtutil')
foreach ($q in $queries) {
    $providers = ($q.Providers | ForEach-Object { "Provider[@Name='$_']" }) -join ' or '
    $xpath = "*[System[($providers) and TimeCreated[timediff(@SystemTime) <= $ms]]]"
    if (-not $wevtutil) { Write-Note "could not collect the $($q.Log) events: wevtutil not found"; continue }
    $evtx = Join-Path $dir "$($q.File).evtx"
    & $wevtutil epl $q.Log $evtx "/q:$xpath" /ow:true 2>$null
    if ($LASTEXITCODE -eq 0 -and (Test-Path -LiteralPath $evtx)) { Write-Note "collected $($q.Log) events -> $($q.File).evtx" }
    else { Write-Note "could not collect the $($q.Log) events as .evtx: wevtutil exit status $LASTEXITCODE" }
    # RenderedXml adds the message text in the system's language (RenderingInfo).
    Save-Output "$($q.File).xml" "$($q.Log) events as XML" $wevtutil @('qe', $q.Log, "/q:$xpath", '/f:RenderedXml', '/e:Events') | Out-Null
}

# --- redaction: the user name, profile folder and computer name become placeholders
if (-not $NoRedact) {
    $names = @()
    if ($env:USERPROFILE) { $names += @{ Find = $env:USERPROFILE; Text = 'C:\Users\<user>' } }
    if ($env:COMPUTERNAME) { $names += @{ Find = $env:COMPUTERNAME; Text = '<host>' } }
    if ($env:USERNAME -and $env:USERNAME.Length -ge 3) { $names += @{ Find = $env:USERNAME; Text = '<user>' } }
    $latin1 = [System.Text.Encoding]::GetEncoding(28591)
    foreach ($f in (Get-ChildItem -LiteralPath $dir -File)) {
        if ($f.Extension -eq '.evtx') {
            # A binary log cannot be rewritten as text: replace each name's UTF-16 bytes in place with as many
            # 'X' characters, so that every offset in the file stays valid (the chunk checksums no longer
            # match; CrashLab's reader reports that and reads on).
            $bytes = [System.IO.File]::ReadAllBytes($f.FullName)
            $s = $latin1.GetString($bytes)
            foreach ($n in $names) {
                foreach ($variant in @($n.Find, $n.Find.ToUpperInvariant(), $n.Find.ToLowerInvariant()) | Select-Object -Unique) {
                    $needle = $latin1.GetString([System.Text.Encoding]::Unicode.GetBytes($variant))
                    $mask = $latin1.GetString([System.Text.Encoding]::Unicode.GetBytes(('X' * $variant.Length)))
                    $s = $s.Replace($needle, $mask)
                }
            }
            [System.IO.File]::WriteAllBytes($f.FullName, $latin1.GetBytes($s))
        } else {
            $text = [System.IO.File]::ReadAllText($f.FullName)
            foreach ($n in $names) {
                $text = [regex]::Replace($text, [regex]::Escape($n.Find), $n.Text.Replace('$', '$$'), 'IgnoreCase')
            }
            [System.IO.File]::WriteAllText($f.FullName, $text, $utf8)
        }
    }
    Write-Note 'redacted the user name, profile folder and computer name (use -NoRedact to keep them)'
}

# --- one archive
if (Test-Path -LiteralPath $Output) { Remove-Item -LiteralPath $Output -Force }
try {
    Compress-Archive -Path $dir -DestinationPath $Output -ErrorAction Stop
} catch {
    Write-Error "collect-crash-bundle: could not write ${Output}: $($_.Exception.Message)"
    exit 1
} finally {
    Remove-Item -LiteralPath $work -Recurse -Force -ErrorAction SilentlyContinue
}
if (-not $Server) {
    Write-Host "collect-crash-bundle: wrote $Output - upload it to CrashLab (check collector.txt inside for what was left out)"
    Write-Output $Output
    exit 0
}
if (-not $Token) {
    Write-Error "collect-crash-bundle: -Server needs -Token (or CRASHLAB_TOKEN): make one on CrashLab's account page; the bundle is in $Output"
    exit 2
}
$url = $Server.TrimEnd('/') + '/api/bundles'
Write-Host "collect-crash-bundle: wrote $Output; uploading it to $url"
try {
    if ($PSVersionTable.PSVersion.Major -ge 7) {
        $reply = Invoke-RestMethod -Method Post -Uri $url -Headers @{ Authorization = "Bearer $Token" } -Form @{ file = Get-Item -LiteralPath $Output }
    } else {
        # Windows PowerShell 5.1 has no -Form: send the archive as the raw body
        $name = [System.Uri]::EscapeDataString([System.IO.Path]::GetFileName($Output))
        $reply = Invoke-RestMethod -Method Post -Uri "$url`?name=$name" -Headers @{ Authorization = "Bearer $Token" } -ContentType 'application/zip' -InFile $Output
    }
    Write-Host "collect-crash-bundle: uploaded as $($Server.TrimEnd('/'))/bundles/$($reply.id)"
    if ($reply.sameFilesAs) { Write-Host "collect-crash-bundle: the same files were uploaded before, as $($Server.TrimEnd('/'))/bundles/$($reply.sameFilesAs.bundleId)" }
} catch {
    Write-Error "collect-crash-bundle: the server refused the upload or could not be reached ($($_.Exception.Message)); the bundle is still in $Output"
    exit 1
}
Write-Output $Output
